"""Sub-agent files: Birdie's AGENT.MD and Markdown agent files (the format, no engine)."""
