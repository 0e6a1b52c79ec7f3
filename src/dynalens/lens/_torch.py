"""One place that imports torch for the lens, so a missing torch gives one clear message."""

INSTALL_HINT = "pip install 'dynalens[torch]'"


def require_torch():
    """Return the torch module, or raise ImportError that says how to get it."""
    try:
        import torch
    except ImportError as exc:
        raise ImportError(
            "the torch.compile lens needs PyTorch, which is not installed; install it with: "
            + INSTALL_HINT + " (pins torch==2.13.0)") from exc
    return torch
