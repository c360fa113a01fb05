/* libFuzzer harness: `probex recover` on a damaged spool.
 *
 * A spool is what a killed recorder leaves behind; the input becomes one and goes
 * through finalize__run, the code `probex recover` and the end of every recording run.
 * Properties:
 *   - failure: exactly one "error:" line, nothing at the output path, no temporary file;
 *   - success: no temporary file, and the output is a trace `probex --view` accepts and
 *     loads (the viewer's own checks and loader) with exactly the rows finalize reported;
 *   - no crash, leak or undefined behaviour (ASan/UBSan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "finalize/finalize.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz__init_process();
	log_verbosity = 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct finalize_opts fo = { .threads = 1 };
	struct finalize_result res;
	struct viewer_state st;
	char spool[512], out[512], tmp[600];
	const char *log;
	int err, stage;

	snprintf(spool, sizeof(spool), "%s/in.probex-spool", fz__workdir());
	snprintf(out, sizeof(out), "%s/out.parquet", fz__workdir());
	snprintf(tmp, sizeof(tmp), "%s.probex-tmp", out);
	if (fz__write_file(spool, data, size))
		abort();
	unlink(out);
	fo.spool = spool;
	fo.output = out;
	fz__capture_begin();
	err = finalize__run(&fo, &res);
	log = fz__capture_end();
	FZ_CHECK(access(tmp, F_OK), "the temporary file %s was left behind", tmp);
	if (err) {
		FZ_CHECK(access(out, F_OK), "a failed recovery (%d) left a file at the output path", err);
		FZ_CHECK(fz__count_lines(log, "error:") == 1, "failure %d: want exactly one error line:\n%s",
			 err, log);
		return 0;
	}
	FZ_CHECK(!fz__count_lines(log, "error:"), "a successful recovery logged an error:\n%s", log);
	fz__capture_begin();
	err = fz__load(out, &st, &stage);
	log = fz__capture_end();
	FZ_CHECK(!err, "the recovered trace (%llu rows) is refused by the viewer (stage %d):\n%s",
		 (unsigned long long)res.rows, stage, log);
	FZ_CHECK(st.m.n == res.rows, "the viewer loaded %llu rows, finalize wrote %llu",
		 (unsigned long long)st.m.n, (unsigned long long)res.rows);
	fz__unload(&st);
	unlink(out);
	return 0;
}
