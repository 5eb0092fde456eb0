/**
 * The agent loop's trace stages the inspector reads (the same strings as agent-loop's
 * `AGENT_TRACE_STAGES`; a test holds them equal). The inspector depends on core only, so it
 * names them here instead of importing the loop.
 */
export const LOOP_STAGES = Object.freeze({
  runStart: 'agent:run-start',
  budget: 'agent:budget',
  composition: 'agent:composition',
  cache: 'agent:cache',
  request: 'agent:request',
  reply: 'agent:reply',
  tool: 'agent:tool',
  approval: 'agent:approval',
  saved: 'agent:saved',
  compacted: 'agent:compacted',
  stop: 'agent:stop',
} as const)
