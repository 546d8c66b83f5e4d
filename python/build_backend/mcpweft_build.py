"""The PEP 517 build backend of mcpweft: maturin's, once it is known that Rust's cargo is on PATH.

Building mcpweft from source compiles its Rust core, which needs a Rust toolchain. Without cargo,
maturin's own backend downloads a temporary Rust toolchain (over a gigabyte) and compiles for many
minutes without a word. This backend stops at once instead, before maturin is even installed, with
a message saying how to install Rust or where prebuilt wheels come from, then hands every hook to
maturin unchanged.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from typing import Any, Optional

MATURIN = "maturin>=1.16,<2"

MESSAGE = """
error: mcpweft cannot be built from source here: Rust's `cargo` is not on PATH.

pip is building mcpweft from source, most likely because no prebuilt wheel matches this
platform or Python. Building from source compiles mcpweft's Rust core and needs
Rust 1.88 or newer: install it with rustup (https://rustup.rs) or the system's package manager
(packages `cargo` and `rustc`), check that `cargo --version` works in this shell, and install
mcpweft again. The platforms with prebuilt wheels, which need no Rust, are listed in the README.
"""


def _require_cargo() -> None:
    """Stops the build with MESSAGE when cargo is not on PATH."""
    if shutil.which("cargo") is None:
        # SystemExit prints the message alone on stderr, without a traceback burying it.
        raise SystemExit(MESSAGE)
    # Never let maturin fetch a toolchain behind the user's back.
    os.environ["MATURIN_NO_INSTALL_RUST"] = "1"


def _maturin() -> Any:
    """Maturin's backend, imported once cargo is known to be there."""
    _require_cargo()
    import maturin  # type: ignore[import-untyped]

    return maturin


def get_requires_for_build_wheel(config_settings: Optional[Mapping[str, Any]] = None) -> list[str]:
    """Checks that cargo is on PATH, then asks for maturin."""
    _require_cargo()
    return [MATURIN]


def get_requires_for_build_editable(config_settings: Optional[Mapping[str, Any]] = None) -> list[str]:
    """Checks that cargo is on PATH, then asks for maturin."""
    _require_cargo()
    return [MATURIN]


def get_requires_for_build_sdist(config_settings: Optional[Mapping[str, Any]] = None) -> list[str]:
    """Checks that cargo is on PATH (maturin reads the Cargo workspace), then asks for maturin."""
    _require_cargo()
    return [MATURIN]


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None
) -> str:
    """Writes the wheel's metadata with maturin."""
    return str(_maturin().prepare_metadata_for_build_wheel(metadata_directory, config_settings))


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Optional[Mapping[str, Any]] = None
) -> str:
    """Writes the editable wheel's metadata with maturin."""
    return str(_maturin().prepare_metadata_for_build_editable(metadata_directory, config_settings))


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    """Compiles the native module and builds the wheel with maturin."""
    return str(_maturin().build_wheel(wheel_directory, config_settings, metadata_directory))


def build_editable(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    """Compiles the native module and builds an editable wheel with maturin."""
    return str(_maturin().build_editable(wheel_directory, config_settings, metadata_directory))


def build_sdist(sdist_directory: str, config_settings: Optional[Mapping[str, Any]] = None) -> str:
    """Builds the source distribution with maturin."""
    return str(_maturin().build_sdist(sdist_directory, config_settings))
