"""The memory inspector: a web page on the HTTP door (`/inspect`) to see, explain and
correct what each agent remembers. Server-rendered HTML and one small script, shipped in
the package (static/), served with the API's token; `inspector = false` turns it off."""

from npc_brain.server.inspector.door import Inspector

__all__ = ["Inspector"]
