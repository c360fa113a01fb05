#include <errno.h>
#include <stdio.h>

#include "common/log.h"
#include "model/sink.h"

static unsigned int generation;

unsigned int sink__generation(void)
{
	return __atomic_add_fetch(&generation, 1, __ATOMIC_RELAXED);
}

int sink__register(duckdb_connection con, const struct sink_spec *def, char *name, size_t len)
{
	duckdb_scalar_function f = duckdb_create_scalar_function();
	duckdb_logical_type t, lt;
	duckdb_state st;

	/* Numbered so that one process can read several files (the tests do). */
	snprintf(name, len, "%s_%u", def->prefix, sink__generation());
	duckdb_scalar_function_set_name(f, name);
	for (int i = 0; i < def->nparams; i++) {
		t = duckdb_create_logical_type(def->params[i]);
		duckdb_scalar_function_add_parameter(f, t);
		duckdb_destroy_logical_type(&t);
	}
	if (def->list_param) {
		t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
		lt = duckdb_create_list_type(t);
		duckdb_scalar_function_add_parameter(f, lt);
		duckdb_destroy_logical_type(&t);
		duckdb_destroy_logical_type(&lt);
	}
	t = duckdb_create_logical_type(def->ret);
	duckdb_scalar_function_set_return_type(f, t);
	duckdb_destroy_logical_type(&t);
	duckdb_scalar_function_set_function(f, def->fn);
	/* Volatile: evaluated for every row, never folded or skipped. */
	duckdb_scalar_function_set_volatile(f);
	/* NULL inputs must reach the sink (a NULL stack is a fact, not "skip the row"). */
	duckdb_scalar_function_set_special_handling(f);
	duckdb_scalar_function_set_extra_info(f, def->ctx, NULL);
	st = duckdb_register_scalar_function(con, f);
	duckdb_destroy_scalar_function(&f);
	return st == DuckDBError ? -EIO : 0;
}

int sink__run(duckdb_connection con, const char *sql, const char *path, const volatile bool *cancel)
{
	duckdb_result res;
	int err = 0;

	if (duckdb_query(con, sql, &res) == DuckDBError) {
		const char *e = duckdb_result_error(&res);

		if (cancel && *cancel)
			err = -ECANCELED;
		else
			log__error("%s: cannot read (damaged file?): %s", path, e ? e : "unknown error");
		err = err ?: -EIO;
	}
	duckdb_destroy_result(&res);
	return err;
}
