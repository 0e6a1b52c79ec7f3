"""Runnable example programs for the torch.compile lens.

`seed` is the README's three-line example; `workloads` holds the CPU-fast, deterministic
programs the lens is tested and benchmarked on. Each needs torch (`pip install 'dynalens[torch]'`).
"""
