import { expect, test } from 'vitest'
import { McpToolError } from './errors.js'
import { mcpResultContent } from './mcp-result.js'

test('every MCP content type becomes blocks the model takes, or a note of what was left out', () => {
  expect(
    mcpResultContent({
      content: [
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'image', data: 'AAAA', mimeType: 'image/svg+xml' },
        { type: 'resource_link', uri: 'file:///a.md', name: 'a.md', description: 'notes' },
        { type: 'resource', resource: { uri: 'file:///b.txt', text: 'hello' } },
        {
          type: 'resource',
          resource: { uri: 'file:///c.png', blob: 'AAAA', mimeType: 'image/png' },
        },
        { type: 'resource', resource: { uri: 'file:///d.bin', blob: 'AAAA' } },
      ],
    }),
  ).toEqual([
    { type: 'text', text: '[audio (audio/wav) left out: the model does not take audio]' },
    {
      type: 'text',
      text: '[image (image/svg+xml) left out: the model takes PNG, JPEG, GIF or WebP images]',
    },
    { type: 'text', text: 'Resource link: a.md <file:///a.md>: notes' },
    { type: 'text', text: 'Resource <file:///b.txt>:\nhello' },
    { type: 'image', mediaType: 'image/png', data: 'AAAA' },
    {
      type: 'text',
      text: '[resource <file:///d.bin> (application/octet-stream) left out: binary content]',
    },
  ])
})

test('structured content is sent as JSON only when the content holds no text', () => {
  const structuredContent = { n: 1 }
  expect(mcpResultContent({ content: [], structuredContent })).toEqual([
    { type: 'text', text: '{"n":1}' },
  ])
  expect(
    mcpResultContent({ content: [{ type: 'text', text: '{"n": 1}' }], structuredContent }),
  ).toEqual([{ type: 'text', text: '{"n": 1}' }])
  expect(mcpResultContent({ content: [] })).toEqual([])
  expect(mcpResultContent({ toolResult: { legacy: true } })).toEqual([
    { type: 'text', text: '{"legacy":true}' },
  ])
})

test('isError throws McpToolError with the server’s text (or a default)', () => {
  expect(() =>
    mcpResultContent({ content: [{ type: 'text', text: 'no such file' }], isError: true }),
  ).toThrow(McpToolError)
  expect(() => mcpResultContent({ content: [], isError: true })).toThrow(
    /reported an error without saying why/,
  )
})

test('a value that is not a result is a ValidationError; junk content never throws', () => {
  expect(() => mcpResultContent(null as never)).toThrow(/mcpResultContent: result must be/)
  expect(mcpResultContent({ content: [null, { type: 'resource' }] } as never)).toEqual([
    { type: 'text', text: '[a resource without content left out]' },
  ])
})

test('structured content adds only what the blocks do not carry, and never binary data as text', () => {
  const data = 'iVBORw0KGgo'.padEnd(400, 'A')
  const image = { type: 'image' as const, data, mimeType: 'image/png' }
  // the filesystem server's read_media_file: the image, and the same image in structuredContent
  expect(mcpResultContent({ content: [image], structuredContent: { content: [image] } })).toEqual([
    { type: 'image', mediaType: 'image/png', data },
  ])
  // a value the text does not say is sent, without the image's base64 or other binary
  expect(
    mcpResultContent({
      content: [{ type: 'text', text: 'Saved.' }, image],
      structuredContent: { id: 'f-42', thumbnail: data, raw: `data:image/png;base64,${data}` },
    }),
  ).toEqual([
    { type: 'text', text: 'Saved.' },
    { type: 'image', mediaType: 'image/png', data },
    { type: 'text', text: '{"id":"f-42"}' },
  ])
  // a text that says every value (the spec's serialized JSON, pretty-printed) carries it all
  expect(
    mcpResultContent({
      content: [{ type: 'text', text: '{\n  "files": 3,\n  "dir": "src"\n}' }],
      structuredContent: { files: 3, dir: 'src' },
    }),
  ).toEqual([{ type: 'text', text: '{\n  "files": 3,\n  "dir": "src"\n}' }])
})
