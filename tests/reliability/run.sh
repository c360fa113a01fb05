#!/usr/bin/env bash
# `make check-reliability`: every part of the reliability and security suite (issue 7),
# each recording what it tried in one ledger, then the summary (summary.sh).
#   REL_PARTS   parts to run (default: fuzz corrupt security load faults)
#   REL_DIR     where the ledger, logs and the load figures go (default build/reliability)
# Parts that need root (faults; the netns and sudo checks of security) print SKIP otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${PROBEX:?}" "${BUILD:?}"
export PROBEX BUILD
export REL_DIR=${REL_DIR:-$root/build/reliability}
export REL_LEDGER=$REL_DIR/ledger.tsv
mkdir -p "$REL_DIR"
: >"$REL_LEDGER"
failed=()
for part in ${REL_PARTS:-fuzz corrupt security load faults}; do
	echo "== reliability: $part"
	start=$(date +%s)
	case $part in
	fuzz) "$root/tests/fuzz/run.sh" ;;
	corrupt | security | load) bash "$here/$part.sh" ;;
	faults) bash "$here/faults.sh" ;;
	*) echo "unknown part $part"; false ;;
	esac
	rc=$?
	echo "== reliability: $part: $([ $rc -eq 0 ] && echo ok || echo FAILED) in $(($(date +%s) - start)) s"
	[ $rc -eq 0 ] || failed+=("$part")
done
echo
bash "$here/summary.sh" "$REL_LEDGER" | tee "$REL_DIR/summary.txt"
rc=${PIPESTATUS[0]}
if [ ${#failed[@]} -gt 0 ] || [ "$rc" -ne 0 ]; then
	echo "check-reliability: FAILED${failed[*]:+ (${failed[*]})}"
	exit 1
fi
echo "check-reliability: all parts passed"
