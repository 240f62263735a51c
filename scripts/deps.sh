#!/usr/bin/env bash
# Install the Debian packages the project needs, when they are missing.
# Idempotent and quiet when everything is present. Needs root (or sudo)
# only when something must be installed.
#
#   deps.sh              everything (make test, make sim, make synth, the driver)
#   deps.sh demo         only what make demo needs: a C compiler, OpenBLAS,
#                        zlib, OpenSSL (job authentication), jansson (the
#                        trainer's report), the Fashion-MNIST package,
#                        iproute2/ethtool for the namespaces, gnuplot
#   deps.sh --list MODE  print MODE's package list and install nothing
# `make test` checks that the demo's list covers every header and library
# the demo's build uses (scripts/deps-check.sh).
set -eu
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
mode=${1:-all}
case $mode in
all|demo) ;;
*) echo "usage: deps.sh [--list] [all|demo]" >&2; exit 2 ;;
esac
demo_pkgs=(
	build-essential pkg-config iproute2 ethtool kmod
	libopenblas-dev zlib1g-dev libssl-dev libjansson-dev
	gnuplot-nox dataset-fashion-mnist
)
pkgs=(
	build-essential clang llvm libclang-rt-14-dev pkg-config
	libpcap-dev libssl-dev tcpdump tshark iproute2 ethtool iputils-ping
	verilator iverilog yosys opensta z3 boolector
	qemu-system-x86 busybox-static cpio kmod debootstrap
	linux-headers-amd64 linux-image-amd64 linux-headers-6.12-amd64 linux-image-6.12-amd64 dwarves
	openmpi-bin libopenmpi-dev
	libopenblas-dev zlib1g-dev libjansson-dev gnuplot-nox dataset-fashion-mnist
	libsimgrid-dev
	python3 python3-torch python3-torchvision python3-numpy
)
[ "$mode" = demo ] && pkgs=("${demo_pkgs[@]}")
if [ $list -eq 1 ]; then echo "${pkgs[@]}"; exit 0; fi
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "deps: need root to install ${missing[*]}" >&2; exit 1; }
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo debconf-set-selections
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/inc-deps.log 2>&1 || {
	echo "deps: apt-get install failed; see /tmp/inc-deps.log" >&2; tail -n 20 /tmp/inc-deps.log >&2; exit 1; }
echo "deps: done"
