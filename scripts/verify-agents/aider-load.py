# Reads restored chat histories back through Aider's own code, all in one Python process (each
# start of `aider` costs about 13 s: importing litellm and parsing Aider's model metadata). Per
# history it does what `aider --chat-history-file F --restore-chat-history --message PROMPT`
# does before it calls the model: aider.main.main parses the same arguments (the CLI's own,
# return_coder=True stopping it where it would start the chat), opens F through InputOutput
# (which appends its "# aider chat started" line first, as the CLI does) and creates the Coder,
# whose restore_chat_history reads F back with split_chat_history_markdown into done_messages;
# then, as Coder.run(with_message) and send_message do, the prompt goes through
# preproc_user_input, is appended to cur_messages, and format_messages().all_messages() builds
# the request (system prompt, done_messages, the "no files" filler turns, the prompt), with
# send_completion's own rewriting for the models that need it. It prints one JSON line per
# history: {"key", "texts", "calls": [names], "results": n} of the non-system messages, or
# {"key", "error"} when Aider restores nothing from it (it then starts afresh).
#
# Usage: python aider-load.py PROMPT < requests, where each line of requests is a JSON object
# {"key", "history": path of a chat history file Aider may append to}. Run with the venv's python
# (scripts/aider-venv.sh) in an empty folder, HOME set to a scratch folder. Only the answers go
# to stdout; Aider's own output goes to stderr.
import json
import os
import sys

prompt = sys.argv[1]
requests = [json.loads(line) for line in sys.stdin.read().splitlines() if line.strip()]
# Aider reads its confirmations from stdin (answered by --yes-always) and prints to stdout.
devnull = os.open(os.devnull, os.O_RDONLY)
os.dup2(devnull, 0)
sys.stdin = open(os.devnull)
answers = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

import aider.main  # noqa: E402  (after the redirection: importing prints)
from aider.coders import Coder  # noqa: E402
from aider.sendchat import ensure_alternating_roles  # noqa: E402

# main registers Aider's bundled model metadata on every call, parsed with json5 (seconds each
# time); it is the same file for every history (no git root, one working folder) and registering
# it again changes nothing, so it is done once.
register = aider.main.register_litellm_models
registered = {}


def register_once(git_root, model_metadata_fname, io, verbose=False):
    k = (git_root, model_metadata_fname)
    if k not in registered:
        registered[k] = register(git_root, model_metadata_fname, io, verbose)
    return registered[k]


aider.main.register_litellm_models = register_once


def argv(history):
    # The arguments of resume's aiderResume, the CLI run this stands for.
    return [
        "--model", "openai/gpt-4o", "--chat-history-file", history, "--restore-chat-history",
        "--message", prompt, "--yes-always", "--no-git", "--no-check-update",
        "--no-show-model-warnings", "--analytics-disable", "--no-pretty", "--no-fancy-input",
        "--map-tokens", "0", "--max-chat-history-tokens", "10000000", "--no-show-release-notes",
        "--input-history-file", os.path.join(os.environ["HOME"], "input.history"),
    ]


def texts_of(content):
    if isinstance(content, str):
        return [content] if content else []
    out = []
    for part in content or []:
        if isinstance(part, dict) and part.get("type") == "text" and part.get("text"):
            out.append(part["text"])
    return out


def answer(obj):
    answers.write(json.dumps(obj) + "\n")
    answers.flush()


for req in requests:
    key = req["key"]
    try:
        coder = aider.main.main(argv(req["history"]), return_coder=True)
        if not isinstance(coder, Coder):
            raise RuntimeError(f"aider's main returned {coder!r} instead of a coder")
        if not coder.done_messages:
            raise LookupError(f"Aider restored no message from {req['history']}")
        coder.io.user_input(prompt)
        coder.init_before_message()
        message = coder.preproc_user_input(prompt)
        if not message:
            raise RuntimeError(f"Aider took the prompt for a command: {prompt!r}")
        coder.cur_messages += [dict(role="user", content=message)]
        messages = coder.format_messages().all_messages()
        if coder.main_model.is_deepseek_r1():
            messages = ensure_alternating_roles(messages)
        texts, calls, results = [], [], 0
        for m in messages:
            role = m.get("role")
            if role == "tool":
                results += 1
                continue
            if role not in ("user", "assistant"):
                continue
            texts.extend(texts_of(m.get("content")))
            for tc in m.get("tool_calls") or []:
                calls.append((tc.get("function") or {}).get("name") or "")
        answer({"key": key, "texts": texts, "calls": calls, "results": results})
    except (Exception, SystemExit) as err:  # one history's failure is its own line, never the batch's
        answer({"key": key, "error": f"{type(err).__name__}: {err}"})
