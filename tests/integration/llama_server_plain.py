"""`python -m llama_cpp.server`, its models loaded as npc-brain loads its own: weights in
plain CPU buffers (npc_brain.llm.llama.load_llama says why)."""

import runpy

from npc_brain.llm.llama import plain_buffers

if __name__ == "__main__":
    with plain_buffers():
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
