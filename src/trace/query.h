/* `probex query FILE SQL`: run SQL on a trace through DuckDB (the file is the view `events`). */
#ifndef PROBEX_TRACE_QUERY_H
#define PROBEX_TRACE_QUERY_H

int query__main(int argc, char **argv);

#endif
