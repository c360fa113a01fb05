/* CPython structure layouts: the generated tables for 3.8-3.12, and 3.13's own
 * _Py_DebugOffsets read from the process. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "record/python.h"

#include "record/pylayout_gen.h"

const struct py_layout *pylayout__table(uint16_t version)
{
	for (size_t i = 0; i < sizeof(pylayout_gen) / sizeof(pylayout_gen[0]); i++)
		if (pylayout_gen[i].version == version)
			return &pylayout_gen[i];
	return NULL;
}

void pylayout__set_span(struct py_layout *l)
{
	uint16_t f[] = { l->fr_previous, l->fr_code, l->fr_instr, l->fr_is_entry, l->fr_owner };
	uint32_t span = 0;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i] != PY_NONE && f[i] + 8u > span)
			span = f[i] + 8u;
	uint16_t c[] = { l->co_filename, l->co_name, l->co_firstlineno };
	uint32_t lo = ~0u, hi = 0;

	l->fr_span = (uint16_t)(span > PY_FRAME_SPAN ? 0 : span);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		lo = c[i] < lo ? c[i] : lo;
		hi = c[i] + 8u > hi ? c[i] + 8u : hi;
	}
	l->co_fp_start = (uint16_t)lo;
	l->co_fp_len = (uint16_t)(hi - lo <= PY_FRAME_SPAN ? hi - lo : 0);
}

/* 3.13's _Py_DebugOffsets, as far as probex reads it: every field a uint64_t. */
enum {
	DO_VERSION = 1, DO_FREE_THREADED,
	DO_RT_SIZE, DO_RT_FINALIZING, DO_RT_INTERP_HEAD,
	DO_IS_SIZE, DO_IS_ID, DO_IS_NEXT, DO_IS_THREADS_HEAD,
	DO_TS_SIZE = DO_IS_SIZE + 13, DO_TS_PREV, DO_TS_NEXT, DO_TS_INTERP, DO_TS_CURRENT_FRAME,
	DO_TS_THREAD_ID,
	DO_FR_SIZE = DO_TS_SIZE + 9, DO_FR_PREVIOUS, DO_FR_EXECUTABLE, DO_FR_INSTR_PTR,
	DO_FR_LOCALSPLUS, DO_FR_OWNER,
	DO_CO_SIZE, DO_CO_FILENAME, DO_CO_NAME, DO_CO_QUALNAME, DO_CO_LINETABLE,
	DO_CO_FIRSTLINENO, DO_CO_ARGCOUNT, DO_CO_LOCALSPLUSNAMES, DO_CO_LOCALSPLUSKINDS,
	DO_CO_ADAPTIVE,
	DO_OB_SIZE, DO_OB_TYPE,
	DO_TP_SIZE, DO_TP_NAME, DO_TP_REPR, DO_TP_FLAGS,
	DO_TU_SIZE, DO_TU_ITEM, DO_TU_OBSIZE,
	DO_LI_SIZE, DO_LI_ITEM, DO_LI_OBSIZE,
	DO_DI_SIZE, DO_DI_KEYS, DO_DI_VALUES,
	DO_FL_SIZE, DO_FL_FVAL,
	DO_LO_SIZE, DO_LO_TAG, DO_LO_DIGIT,
	DO_BY_SIZE, DO_BY_OBSIZE, DO_BY_SVAL,
	DO_UN_SIZE, DO_UN_STATE, DO_UN_LENGTH, DO_UN_ASCII_SIZE,
	DO__COUNT,
};

static bool fits16(uint64_t v)
{
	return v < PY_NONE;
}

int pylayout__from_debug(const void *buf, uint32_t len, struct py_layout *l)
{
	uint64_t d[DO__COUNT];
	const uint8_t *b = buf;
	uint64_t ver;

	if (len < sizeof(d) || memcmp(b, "xdebugpy", 8))
		return -ENOTSUP;
	memcpy(d, b, sizeof(d));
	ver = d[DO_VERSION];
	/* Only 3.13's struct is known here; a free-threaded build walks other structures. */
	if ((ver >> 16) != 0x030d || d[DO_FREE_THREADED])
		return -ENOTSUP;
	*l = (struct py_layout){
		.version = 0x030d,
		.cf_current = PY_NONE, .fr_is_entry = PY_NONE, .owner_cstack = 3, .co_code = PY_NONE,
		/* PyCompactUnicodeObject: the ASCII header, utf8_length, utf8. */
		.uni_compact_size = (uint16_t)(d[DO_UN_ASCII_SIZE] + 16),
	};
	{
		struct { uint16_t *to; int from; } m[] = {
			{ &l->rt_interp_head, DO_RT_INTERP_HEAD }, { &l->is_threads_head, DO_IS_THREADS_HEAD },
			{ &l->ts_next, DO_TS_NEXT }, { &l->ts_thread_id, DO_TS_THREAD_ID },
			{ &l->ts_frame, DO_TS_CURRENT_FRAME }, { &l->fr_previous, DO_FR_PREVIOUS },
			{ &l->fr_code, DO_FR_EXECUTABLE }, { &l->fr_instr, DO_FR_INSTR_PTR },
			{ &l->fr_owner, DO_FR_OWNER }, { &l->co_adaptive, DO_CO_ADAPTIVE },
			{ &l->co_name, DO_CO_NAME }, { &l->co_qualname, DO_CO_QUALNAME },
			{ &l->co_filename, DO_CO_FILENAME }, { &l->co_firstlineno, DO_CO_FIRSTLINENO },
			{ &l->co_linetable, DO_CO_LINETABLE }, { &l->uni_ascii_size, DO_UN_ASCII_SIZE },
			{ &l->uni_state, DO_UN_STATE }, { &l->bytes_sval, DO_BY_SVAL },
		};

		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			if (!fits16(d[m[i].from]))
				return -ENOTSUP;
			*m[i].to = (uint16_t)d[m[i].from];
		}
	}
	return 0;
}
