// Public API of @contextkit/agent-loop: filled in by the agent-loop work.
