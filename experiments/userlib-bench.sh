#!/usr/bin/env bash
# libinceptionn benchmarks (figures, not tests).
#
#   experiments/userlib-bench.sh quick   codec + loopback all-reduce, N=4, 4 KiB..16 MiB
#   experiments/userlib-bench.sh full    codec + loopback N=4 4 KiB..256 MiB with
#                                    MPI_Allreduce + emulated cluster N=4 at
#                                    1 Gbit/s (RATE=...) 4 KiB..256 MiB with MPI
#
# MPI runs use OpenMPI's TCP transport (--mca btl tcp,self) so both sides use
# the same network; in the cluster mpirun starts its daemons in the other
# namespaces through cluster/netns-rsh.sh.
set -eu
cd "$(dirname "$0")/.."
what=${1:-quick}
n=${N:-4}
rate=${RATE:-1gbit}
bench=build/bin/inc-bench
bmpi=build/bin/inc-bench-mpi
mpirun_ok() { command -v mpirun >/dev/null && [ -x "$bmpi" ]; }
mpi_args=(--allow-run-as-root --oversubscribe --mca btl tcp,self)

echo "### inc-bench codec"
nice "$bench" codec
case $what in
quick)
	echo "### loopback, $n ranks (inc-run)"
	nice build/bin/inc-run -n "$n" "$bench" allreduce -b 4K -e 16M -f 4
	;;
full)
	echo "### loopback, $n ranks"
	if mpirun_ok; then
		nice mpirun "${mpi_args[@]}" -np "$n" "$bmpi" allreduce -b 4K -e 256M -f 4
	else
		nice build/bin/inc-run -n "$n" "$bench" allreduce -b 4K -e 256M -f 4
	fi
	prefix=incb$$
	trap 'cluster/netns-cluster.sh down -p $prefix' EXIT
	# Offloads on (-o): the emulated links then cost less CPU on a small
	# machine; the capture suite keeps them off to see MTU-sized frames.
	cluster/netns-cluster.sh up -p "$prefix" -n "$n" -r "$rate" ${OFFLOAD--o}
	echo "### emulated cluster, $n namespaces, $rate per link"
	if mpirun_ok; then
		hosts=$(mktemp)
		for ((i = 0; i < n; i++)); do echo "10.99.0.$((i + 1)) slots=1"; done >"$hosts"
		INC_NETNS_PREFIX=$prefix cluster/netns-cluster.sh exec -p "$prefix" 0 \
			mpirun "${mpi_args[@]}" -np "$n" --hostfile "$hosts" \
			--mca plm_rsh_agent "$PWD/cluster/netns-rsh.sh" \
			--mca btl_tcp_if_include 10.99.0.0/24 --mca oob_tcp_if_include 10.99.0.0/24 \
			"$PWD/$bmpi" allreduce -b 4K -e 256M -f 4
		rm -f "$hosts"
	else
		pids=()
		for ((i = 0; i < n; i++)); do
			cluster/netns-cluster.sh exec -p "$prefix" $i env INC_RANK=$i INC_WORLD_SIZE=$n \
				INC_MASTER_ADDR=10.99.0.1 INC_MASTER_PORT=29600 \
				"$bench" allreduce -b 4K -e 256M -f 4 &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p"; done
	fi
	;;
*)
	echo "usage: $0 quick|full" >&2
	exit 2
	;;
esac
