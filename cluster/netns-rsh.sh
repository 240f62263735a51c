#!/bin/sh
# mpirun "rsh agent" for the emulated cluster: mpirun runs
# `netns-rsh.sh HOST COMMAND...`; HOST 10.99.0.X is namespace
# $INC_NETNS_PREFIX-(X-1) of cluster/netns-cluster.sh.
host=$1
shift
i=$(( ${host##*.} - 1 ))
exec ip netns exec "${INC_NETNS_PREFIX:?}-$i" sh -c "$*"
