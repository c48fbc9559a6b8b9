"""`python -m npc_brain` is `npc-brain`."""

from npc_brain.cli import main

raise SystemExit(main())
