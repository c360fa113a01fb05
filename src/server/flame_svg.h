/* An interactive flame graph as one SVG document (root at the bottom, frames merged by
 * name along each path, children in name order), in the style of inferno/flamegraph.pl:
 * hover details, click to zoom, Reset Zoom, Search (button, Ctrl+F or F3). */
#ifndef PROBEX_SERVER_FLAME_SVG_H
#define PROBEX_SERVER_FLAME_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "model/flame.h"

/* Renders the stacks (sorted in place); NULL on allocation failure. */
char *flame__svg(const char *title, const char *count_name, struct flame_stack *stacks, size_t n,
		 size_t *len);

#endif
