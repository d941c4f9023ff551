#!/usr/bin/env bash
# Install the Debian packages fabtrace needs to build, test and demo,
# only those that are missing.  Does nothing (and needs no root) when all are present.
# `tools/deps.sh bench` (make bench) adds the tools only the benchmarks use.
set -euo pipefail
pkgs=(
	make gcc clang libclang-rt-14-dev llvm libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev pkg-config
	libibverbs-dev librdmacm-dev libcmocka-dev
	mpich libmpich-dev openmpi-bin libopenmpi-dev g++ libgloo-dev
	python3-torch  # PyTorch DDP over Gloo (tests: test_ddp_gloo_*), run with /usr/bin/python3
	prometheus python3-prometheus-client groff-base man-db
	iproute2 iputils-ping ethtool iptables tmux curl procps python3 util-linux
	iperf3  # test_drops_netns, test_flight_post_probes (and the benchmarks)
	xxd chromium
	slurm-wlm  # test_multihost_slurm: a one-node Slurm cluster on localhost
)
if [[ ${1:-} == bench ]]; then
	pkgs+=(tcpdump bpftrace time)
fi
missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $st == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
	echo "fabtrace: deps: missing Debian packages: ${missing[*]}; run 'sudo make deps'" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
