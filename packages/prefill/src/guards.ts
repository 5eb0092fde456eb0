import { invalidArgument, isContentBlockArray, isMessageArray } from '@contextkit/core'

/** @internal `value` is a content block array core's `ContentBlockSchema` accepts. */
export function checkContent(value: unknown, fn: string, param: string): void {
  if (isContentBlockArray(value)) return
  invalidArgument(fn, param, 'an array of content blocks')
}

/** @internal `value` is a message array core's `MessageSchema` accepts. */
export function checkMessages(value: unknown, fn: string, param: string): void {
  if (isMessageArray(value)) return
  invalidArgument(fn, param, 'an array of messages')
}
