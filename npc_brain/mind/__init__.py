"""The agents' minds: one folder per faculty (act, plan, react, reflect, talk).

In each folder `prompts.py` holds the faculty's model calls: pure functions of the
chat model that build a prompt, constrain the answer with a JSON schema and parse it
with a documented safe fallback, so no model answer can crash anything. Beside it, one
orchestration module decides what to think about and when, through `Faculties`, and
keeps what it must remember in the agent's `AgentMind` (state.py). `Minds` (minds.py)
wires them once. docs/architecture.md draws the whole map.
"""
