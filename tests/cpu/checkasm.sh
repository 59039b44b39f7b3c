#!/usr/bin/env bash
# checkasm --test=vf_toi420 on another CPU, and the kernels it tested.
#   tests/cpu/checkasm.sh "EXEC" CHECKASM ISA=KERNEL,KERNEL... ...
# EXEC runs the binary (e.g. "qemu-x86_64 -cpu Nehalem"). Every test must
# pass, and the kernel versions checkasm compared with C must be exactly the
# ones given: each ISA=list names the kernels that ISA must have replaced,
# and no other ISA may appear (so a model whose flags let through a kernel
# it cannot run, or a dispatch that lost one, fails). The list is what
# tests/checkasm/vf_toi420.c prints with TOI420_CHECKASM_LIST set.
set -u
exec_prefix=$1 checkasm=$2; shift 2

out=$(TOI420_CHECKASM_LIST=1 $exec_prefix "$checkasm" --test=vf_toi420 2>&1)
rc=$?
echo "$out" | grep -v '^toi420 kernel: ' | grep -v 'TCG doesn.t support' | sed 's/^/  /'
[ $rc = 0 ] || { echo "checkasm exited with $rc"; echo "$out" | tail -n 20; exit 1; }
echo "$out" | grep -q '^checkasm: all [0-9]* tests passed' || { echo "checkasm: no 'all tests passed' line"; exit 1; }

# the versions tested: "toi420 kernel: ssse3 rgba"
got=$(echo "$out" | sed -n 's/^toi420 kernel: //p' | grep -v '^c ' | sort -u)
echo "$out" | grep -q '^toi420 kernel: c rgba$' || { echo "no kernel list (TOI420_CHECKASM_LIST)"; exit 1; }
want=$(for spec in "$@"; do
           isa=${spec%%=*}
           for k in $(echo "${spec#*=}" | tr , ' '); do echo "$isa $k"; done
       done | sort -u)
for isa in $(echo "$want" | cut -d' ' -f1 | sort -u); do
    echo "  $isa: $(echo "$got" | sed -n "s/^$isa //p" | tr '\n' ' ')"
done
if [ "$got" != "$want" ]; then
    echo "kernel versions tested differ from the expected ones (< tested, > expected):"
    diff <(echo "$got") <(echo "$want")
    exit 1
fi
echo "  $(echo "$got" | wc -l) kernel versions as expected"
