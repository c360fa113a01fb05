/* Finding CPython in a running process (pyfind.c). */
#ifndef PROBEX_RECORD_PYFIND_H
#define PROBEX_RECORD_PYFIND_H

#include <stddef.h>
#include <stdint.h>

#include "record/python.h"

enum pyfind_result {
	PYFIND_NONE,		/* not CPython */
	PYFIND_OK,		/* out filled */
	PYFIND_LATER,		/* linked with libpython, which is not mapped yet */
	PYFIND_UNSUPPORTED,	/* CPython of a version or build probex cannot walk */
	PYFIND_GONE,		/* the process exited */
};

struct pyfound {
	struct py_proc proc;
	uint16_t version;
	uint64_t eval, eval_size;	/* _PyEval_EvalFrameDefault's code (0: unknown) */
	char path[256];		/* the object defining _PyRuntime */
};

int pyfind__process(uint32_t pid, struct pyfound *out);
/* len bytes of pid's memory at addr: 0 or -EFAULT. */
int pyfind__read_mem(uint32_t pid, uint64_t addr, void *buf, size_t len);

#endif
