/* `probex query [--no-header] FILE SQL`: SQL over a trace, tab-separated output.
 * The file is exposed as the view `events`, the name the reference viewer used. */
#include <duckdb.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "common/log.h"
#include "trace/duck.h"

static void print_value(duckdb_result *res, idx_t col, idx_t row)
{
	char *s;

	if (duckdb_value_is_null(res, col, row)) {
		fputs("NULL", stdout);
		return;
	}
	s = duckdb_value_varchar(res, col, row);
	fputs(s ? s : "", stdout);
	duckdb_free(s);
}

static void print_result(duckdb_result *res, bool header)
{
	idx_t cols = duckdb_column_count(res), rows = duckdb_row_count(res);

	if (header) {
		for (idx_t c = 0; c < cols; c++)
			printf("%s%s", c ? "\t" : "", duckdb_column_name(res, c));
		putchar('\n');
	}
	for (idx_t r = 0; r < rows; r++) {
		for (idx_t c = 0; c < cols; c++) {
			if (c)
				putchar('\t');
			print_value(res, c, r);
		}
		putchar('\n');
	}
}

int cmd_query(int argc, char **argv)
{
	duckdb_database db = NULL;
	duckdb_connection con = NULL;
	duckdb_result res;
	bool header = true;
	int ret = 1, i = 1;

	if (argc > 1 && !strcmp(argv[1], "--no-header")) {
		header = false;
		i++;
	}
	if (argc - i != 2)
		return args__usage_error("query", cmd__usage("query"), "expected FILE and SQL");
	if (duck__open_file_view(argv[i], "events", &db, &con))
		goto cleanup;
	if (duckdb_query(con, argv[i + 1], &res) == DuckDBError) {
		log__error("%s: query failed: %s", argv[i], duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		goto cleanup;
	}
	print_result(&res, header);
	duckdb_destroy_result(&res);
	ret = 0;
cleanup:
	duckdb_disconnect(&con);
	duckdb_close(&db);
	return ret;
}
