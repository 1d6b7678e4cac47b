"""pathlab for agents: the library's verbs as tools an agent calls (`mcp_server.py`, served by
`pathlab mcp`)."""
