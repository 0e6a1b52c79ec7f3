"""Hugging Face transformers models under torch.compile: what users actually run.

Each model is built from a tiny config with random weights (a fixed seed, no hub download), so
a run is fast on CPU and repeatable. A run compiles, calls, and returns its outputs (tensors)
so a caller can check that the lens changed nothing:

- ``inference``: the compiled model on two batches under ``torch.no_grad()``;
- ``training``: two steps of a compiled training step (forward with labels, ``loss.backward()``,
  ``optimizer.step()``, ``optimizer.zero_grad()``); the losses and the updated parameters come
  back;
- ``generation`` (causal models): greedy decoding of four tokens with the KV cache.

One model is no transformers model: ``cnn_checkpoint``, a CNN with a block under
``torch.utils.checkpoint``. transformers is imported only inside the builders (it is no
dependency of dynalens; the ``test`` extra pins it).

``python -m dynalens.examples.hf_models --list`` lists the models; ``... NAME MODE [DUMP_DIR]``
runs one (under ``prepare_debug`` when a folder is given); ``--all DUMP_ROOT`` runs every entry
of ``RUNS`` plain and under the lens and prints, per run, what the lens saw (``run_all``,
with the checks of ``dynalens.examples.lens_check``).
"""

import os
import sys

import torch

from .lens_check import dump_figures, probe_guards

VOCAB = 96
SEQ = 8
BATCH = 2

# name -> builder (with .default_backend); a builder returns (model, kind), kind saying which
# inputs the model takes ("causal", "masked", "seq2seq" or "image")
MODELS = {}
MODES = ("inference", "training")
# what the tests and the bench run: every transformers model in both modes, then two
# programs of another shape (a greedy generation loop with a KV cache; a checkpointed CNN)
TRANSFORMERS = ("gpt2", "llama", "bert", "t5", "mixtral")
RUNS = [(name, mode) for name in TRANSFORMERS for mode in MODES] + [
    ("gpt2", "generation"), ("cnn_checkpoint", "training")]


def model(name, backend="aot_eager"):
    def register(fn):
        fn.model_name = name
        fn.default_backend = backend
        fn.description = (fn.__doc__ or "").strip().splitlines()[0]
        MODELS[name] = fn
        return fn
    return register


def _offline():
    # the tests and the bench never reach the hub: every model is built from a config
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@model("gpt2")
def gpt2():
    """GPT-2 language model (learned positions, fused QKV Conv1D, tied embeddings)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(vocab_size=VOCAB, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    return GPT2LMHeadModel(cfg), "causal"


@model("llama")
def llama():
    """Llama causal LM (RoPE, RMSNorm, grouped-query attention, SwiGLU MLP)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      max_position_embeddings=32)
    return LlamaForCausalLM(cfg), "causal"


@model("bert")
def bert():
    """BERT masked LM (encoder only, token types, attention mask)."""
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=32,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    return BertForMaskedLM(cfg), "masked"


@model("t5")
def t5():
    """T5 encoder-decoder (relative position buckets, cross attention, shifted labels)."""
    from transformers import T5Config, T5ForConditionalGeneration

    cfg = T5Config(vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64, num_layers=2,
                   num_decoder_layers=2, num_heads=2, dropout_rate=0.0,
                   decoder_start_token_id=0, pad_token_id=0)
    return T5ForConditionalGeneration(cfg), "seq2seq"


@model("mixtral", backend="inductor")  # inference only; training: aot_eager
def mixtral():
    """Mixtral-style mixture of experts (top-2 router over 4 experts, load-balancing loss)."""
    from transformers import MixtralConfig, MixtralForCausalLM

    cfg = MixtralConfig(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                        num_local_experts=4, num_experts_per_tok=2,
                        max_position_embeddings=32, output_router_logits=True)
    return MixtralForCausalLM(cfg), "causal"


@model("cnn_checkpoint")
def cnn_checkpoint():
    """Not transformers: a small CNN whose middle block runs under torch.utils.checkpoint
    (activations recomputed in backward), the memory-saving pattern of real training loops."""
    import torch.nn as nn
    import torch.utils.checkpoint as checkpoint

    class Block(nn.Module):
        def __init__(self, channels):
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)
            self.norm = nn.BatchNorm2d(channels)

        def forward(self, x):
            return torch.relu(self.norm(self.conv(x))) + x

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 8, 3, padding=1)
            self.block = Block(8)
            self.head = nn.Linear(8, 10)

        def forward(self, x):
            x = torch.relu(self.stem(x))
            x = checkpoint.checkpoint(self.block, x, use_reentrant=False)
            return self.head(x.mean(dim=(2, 3)))

    return Net(), "image"


def _batch(kind, gen):
    if kind == "image":
        return {"x": torch.randn(BATCH * 2, 3, 8, 8, generator=gen),
                "labels": torch.randint(0, 10, (BATCH * 2,), generator=gen)}
    ids = torch.randint(1, VOCAB, (BATCH, SEQ), generator=gen)
    labels = torch.randint(1, VOCAB, (BATCH, SEQ), generator=gen)
    mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    mask[1, -2:] = 0                        # one padded row: the mask takes part
    if kind == "causal":
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}
    if kind == "masked":
        return {"input_ids": ids, "attention_mask": mask,
                "token_type_ids": torch.zeros_like(ids), "labels": labels}
    return {"input_ids": ids, "attention_mask": mask,
            "labels": torch.randint(1, VOCAB, (BATCH, SEQ // 2), generator=gen)}


def build(name, seed=0):
    """(model, kind): the model with weights from `seed`."""
    _offline()
    torch.manual_seed(seed)
    built, kind = MODELS[name]()
    return built, kind


def backend_for(name, mode):
    """The backend a model runs on by default: Inductor for one model's inference (so the
    kernels are in a dump too), aot_eager elsewhere (fast to compile, same graphs)."""
    fn = MODELS[name]
    return fn.default_backend if mode == "inference" else "aot_eager"


def make_run(name, mode="inference", backend=None):
    """Reset Dynamo, build the model and its compiled step; return `step()`, which runs the
    model on two fixed batches and returns the outputs as a list of tensors.

    Calling `step()` again replays the same calls on the same compiled objects (for training,
    from the updated weights): the cached compiled code runs again.
    """
    import torch._dynamo

    if mode not in MODES + ("generation",):
        raise ValueError("mode must be one of %s, not %r" % (", ".join(MODES), mode))
    torch._dynamo.reset()
    backend = backend_for(name, mode) if backend is None else backend
    net, kind = build(name)
    gen = torch.Generator().manual_seed(1)
    batches = [_batch(kind, gen) for _ in range(2)]
    if mode == "generation":
        return _generation(net, kind, batches[0]["input_ids"], backend)
    if mode == "inference":
        net.eval()
        compiled = torch.compile(net, backend=backend)

        def step():
            out = []
            with torch.no_grad():
                for b in batches:
                    inputs = {k: v for k, v in b.items() if k != "labels" or kind == "seq2seq"}
                    result = compiled(**inputs)
                    out.append(result if kind == "image" else result.logits)
            return out
        return step
    net.train()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-2)

    @torch.compile(backend=backend)
    def train_step(batch):
        if kind == "image":
            loss = torch.nn.functional.cross_entropy(net(batch["x"]), batch["labels"])
        else:
            loss = net(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss

    def step():
        out = [train_step(b).detach() for b in batches]
        return out + [p.detach().clone() for p in net.parameters()]
    return step


def _generation(net, kind, prompt, backend, new_tokens=4):
    """Greedy decoding with the model's KV cache, as `generate()` does it: the prompt once,
    then one token per call with the cache of the calls before (shapes change each step)."""
    if kind != "causal":
        raise ValueError("generation needs a causal language model")
    net.eval()
    compiled = torch.compile(net, backend=backend)

    def step():
        out = []
        with torch.no_grad():
            result = compiled(input_ids=prompt, use_cache=True)
            for _ in range(new_tokens):
                token = result.logits[:, -1:].argmax(-1)
                out += [result.logits[:, -1], token]
                result = compiled(input_ids=token, past_key_values=result.past_key_values,
                                  use_cache=True)
        return out
    return step


def run_model(name, mode="inference", backend=None):
    """Reset Dynamo, build the model, compile, run; return the outputs as a list of tensors."""
    return make_run(name, mode, backend)()


def outputs_equal(a, b):
    """Same number of tensors, each with the same dtype, shape and bits."""
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and bool(torch.equal(x, y))
        for x, y in zip(a, b))


def run_all(root, names=None, modes=None):
    """Every run of hf_models.RUNS (or those of `names` / `modes`), plain and under the lens
    (into root/NAME_MODE); print one line of figures per run; return the rows."""
    import warnings

    from dynalens.lens.api import prepare_debug

    rows = []
    print("%-18s %-5s %8s %7s %8s %6s %6s %9s %6s %6s" % (
        "run", "same", "compiles", "frames", "verified", "resume", "files", "compiles?",
        "guards", "warn"))
    for name, mode in RUNS:
        if (names and name not in names) or (modes and mode not in modes):
            continue
        if True:
            plain = make_run(name, mode)()
            step = make_run(name, mode)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                with prepare_debug(os.path.join(root, "%s_%s" % (name, mode)),
                                   report=False) as run:
                    lensed = step()
            row = dump_figures(run)
            row.update(name=name, mode=mode, same=outputs_equal(plain, lensed))
            row["guards"] = probe_guards(run, step)
            rows.append(row)
            print("%-18s %-5s %8d %7d %8s %6d %6d %9s %6s %6d" % (
                name + " " + mode, row["same"], row["compiles"], row["frames"],
                "%d/%d" % (row["verified"], row["frames"]), row["resume_functions"],
                row["files"], "yes" if not row["bad_files"] else "NO %d" % len(row["bad_files"]),
                "%d/%d" % (row["guards"]["checked"] - len(row["guards"]["problems"]),
                           row["guards"]["checked"]), len(row["warnings"])), flush=True)
            for line in (row["not_verified"] + row["bad_files"] + row["resume_problems"]
                         + row["guards"]["problems"] + row["warnings"]):
                print("    " + line[:300])
    return rows


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] == "--list":
        for name, fn in MODELS.items():
            print("%-10s %-10s %s" % (name, fn.default_backend, fn.description))
        return 0
    if argv[0] == "--all":
        if len(argv) < 2:
            print("usage: --all DUMP_ROOT [NAME ...]", file=sys.stderr)
            return 2
        rows = run_all(argv[1], argv[2:] or None)
        return 0 if all(r["same"] for r in rows) else 1
    name, mode = argv[0], argv[1] if len(argv) > 1 else "inference"
    if name not in MODELS or mode not in MODES + ("generation",):
        print("usage: NAME {inference,training,generation} [DUMP_DIR]; --list shows the models",
              file=sys.stderr)
        return 2
    if len(argv) > 2:
        from dynalens.lens.api import prepare_debug

        with prepare_debug(argv[2]) as run:
            run_model(name, mode)
        print("dump written to", run.dump_dir)
    else:
        for out in run_model(name, mode):
            print(out.shape, float(out.float().sum()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
