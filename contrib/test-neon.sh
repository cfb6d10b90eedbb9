#!/usr/bin/env bash
# Runs the import crate's unit tests (the structural scanner's NEON backend among them) as
# aarch64 code under QEMU on an x86-64 Debian machine: installs qemu-user, the aarch64 cross
# compiler and linker, and Rust's aarch64 standard library when they are missing. Safe to
# run again. Not part of CI (the packages and the cross build take several minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  $sudo_cmd apt-get install -y -q "${need[@]}"
fi
rustup target list --installed | grep -qx aarch64-unknown-linux-gnu \
  || rustup target add aarch64-unknown-linux-gnu

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
cargo test --release --target aarch64-unknown-linux-gnu --target-dir target/aarch64 \
  -p prvscope-import --lib "$@"
