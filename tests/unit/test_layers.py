"""The package's layers: every import points down (or sideways), never up.

The order is the architecture (docs/architecture.md): values and model backends at the
bottom, then the memory, the mind (pure prompts, state, faculties, orchestration, the
Minds that wire them), the Brain facade, the doors, and the command line on top.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "npc_brain"

LAYERS: list[tuple[str, ...]] = [
    ("npc_brain", "npc_brain.errors", "npc_brain.v1"),
    ("npc_brain.config",),
    ("npc_brain.persona", "npc_brain.game_actions", "npc_brain.modelhub", "npc_brain.llm"),
    ("npc_brain.memory", "npc_brain.importance"),
    ("npc_brain.action", "npc_brain.validation"),
    (
        "npc_brain.mind.prompts",
        "npc_brain.mind.emoji",
        "npc_brain.mind.*.prompts",
        "npc_brain.mind.plan.affordances",
        "npc_brain.mind.plan.skeleton",
        "npc_brain.mind.plan.choices",
        "npc_brain.mind.talk.answers",
        "npc_brain.mind.talk.carry",
        "npc_brain.mind.talk.intent",
        "npc_brain.mind.talk.contradict",
        "npc_brain.mind.talk.misfit",
        "npc_brain.mind.talk.acts",
        "npc_brain.mind.talk.wh",
        "npc_brain.mind.talk.realise",
        "npc_brain.mind.talk.checks",
        "npc_brain.mind.talk.trade",
        "npc_brain.mind.reflect.said",
        "npc_brain.mind.reflect.patterns",
    ),
    ("npc_brain.mind.state", "npc_brain.mind.usage"),
    ("npc_brain.mind.world",),
    ("npc_brain.mind.backlog",),
    ("npc_brain.mind.faculties",),
    (
        "npc_brain.mind.talk.relations",
        "npc_brain.mind.talk.invitation",
        "npc_brain.mind.talk.understand",
        "npc_brain.mind.talk.slots",
    ),
    ("npc_brain.mind.plan.composer",),
    (
        "npc_brain.mind.perceive",
        "npc_brain.mind.knowledge",
        "npc_brain.mind.plan.planner",
        "npc_brain.mind.reflect.reflector",
        "npc_brain.mind.talk.news",
        "npc_brain.mind.talk.scene",
        "npc_brain.mind.talk.hindrance",
        "npc_brain.mind.talk.roles",
        "npc_brain.mind.talk.social",
        "npc_brain.mind.talk.questions",
        "npc_brain.mind.talk.deeds",
        "npc_brain.mind.talk.compose",
        "npc_brain.mind.talk.outcomes",
        "npc_brain.mind.talk.reply",
    ),
    ("npc_brain.mind.act.actor", "npc_brain.mind.talk.conversation"),
    ("npc_brain.mind.react.reactions",),
    ("npc_brain.mind.minds", "npc_brain.mind"),
    ("npc_brain.snapshots", "npc_brain.inspection"),
    ("npc_brain.brain",),
    ("npc_brain.server",),
    ("npc_brain.demo",),
    ("npc_brain.cli", "npc_brain.__main__"),
]


def _matches(module: str, pattern: str) -> bool:
    if "*" in pattern:  # npc_brain.mind.*.prompts: any faculty's prompts
        head, tail = pattern.split("*")
        return module.startswith(head) and module.endswith(tail) and module.count(".") == 3
    return module == pattern or module.startswith(pattern + ".")


def layer_of(module: str) -> int:
    """The layer of the most specific pattern that matches the module."""
    best: tuple[int, int] | None = None
    for index, patterns in enumerate(LAYERS):
        for pattern in patterns:
            if _matches(module, pattern) and (best is None or len(pattern) > best[1]):
                best = (index, len(pattern))
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[0]


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if "v1" in parts:
            continue
        name = ".".join(parts).removesuffix(".__init__")
        found[name] = path
    return found


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "npc_brain":
                names |= {f"npc_brain.{alias.name}" for alias in node.names}
            elif node.module.startswith("npc_brain."):
                names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names if a.name.startswith("npc_brain")}
    return names


def test_every_module_imports_only_its_layer_or_those_below() -> None:
    upward = [
        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)})"
        for module, path in sorted(modules().items())
        for target in sorted(imports(path))
        if layer_of(target) > layer_of(module)
    ]
    assert upward == []


def test_the_layer_check_catches_an_upward_import() -> None:
    assert layer_of("npc_brain.mind.plan.prompts") < layer_of("npc_brain.mind.plan.planner")
    assert layer_of("npc_brain.config") < layer_of("npc_brain.llm.backends")
    assert layer_of("npc_brain.mind.minds") < layer_of("npc_brain.brain")


def test_prompt_modules_are_pure() -> None:
    """A faculty's prompts.py builds prompts and parses answers: it reaches no state,
    world, scheduler or other faculty's orchestration."""
    for module, path in modules().items():
        if module.endswith(".prompts"):
            for target in imports(path):
                assert layer_of(target) <= layer_of(module), (module, target)
                assert not target.startswith("npc_brain.llm.scheduler"), (module, target)
