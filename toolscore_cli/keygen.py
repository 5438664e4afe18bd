"""``toolscore keygen``: an Ed25519 key pair for signing receipts."""

from __future__ import annotations

import click

from toolscore_cli import console
from toolscore_cli.paths import FILE


@click.command("keygen")
@click.argument("path", type=FILE)
def keygen_command(path: str) -> None:
    """Write a new Ed25519 key pair: the private key to PATH (mode 0600) and the public key
    to PATH.pub. Sign with `--sign PATH`; verify with `toolscore verify --key PATH.pub`.
    An existing file at either path is left alone (exit 2)."""
    from toolscore_core.signing import generate_key_pair

    private, public = generate_key_pair(path)
    out = console.stdout()
    out.print(f"private key: {private} (keep it secret; mode 0600)", markup=False,
              soft_wrap=True)
    out.print(f"public key: {public} (give it to whoever verifies)", markup=False,
              soft_wrap=True)
