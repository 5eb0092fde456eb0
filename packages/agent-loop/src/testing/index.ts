// @contextkit/agent-loop/testing: conformance checks for store implementations.
