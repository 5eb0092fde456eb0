// @contextkit/agent-loop/anthropic: the Anthropic SDK provider.
