"""hermes-pond: Pond's recall tools inside Hermes Agent.

A thin client of the running Pond daemon (its MCP socket); it never opens the archive itself.
Hermes loads it from ~/.hermes/plugins/pond/ (written by `pond install`, with `pond` added to
plugins.enabled in Hermes's config.yaml) or, installed with pip, through the
hermes_agent.plugins entry point; either way Hermes calls register(ctx)."""

from . import tools

__version__ = "0.1.0"


def register(ctx):
    """register adds the toolset pond to Hermes: pond_search, pond_get_session,
    pond_get_message and pond_sql. Nothing is connected here: each call dials the daemon."""
    for schema, check in tools.TOOLS:
        ctx.register_tool(
            name=schema["name"],
            toolset=tools.TOOLSET,
            schema=schema,
            handler=tools.handler(schema, check),
            description=schema["description"],
            emoji="🪷",
        )
