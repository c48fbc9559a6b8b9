"""`npc-brain demo`: a headless town of agents, the paper's experiment in miniature, run
against a real npc-brain server, with an evaluation report; and `npc-brain interview`.

    town.py cast.py fields.py   the towns and casts (data/<town>/*.toml), checked
    server.py                   the server: a child process on a free port, or an address
    simulation.py               the game loop: Tick in lockstep, moves, what each agent sees
    console.py clock.py         the console view, game time as text
    memories.py analysis.py     conversations, diffusion of the seeds, network density
    report.py markdown.py charts.py writing.py   the report: JSON, Markdown, charts
    run.py interview.py         the two commands
"""
