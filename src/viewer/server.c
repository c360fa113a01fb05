/* Placeholder until the viewer backend lands (issue 3). */
#include "common/log.h"
#include "viewer/viewer.h"

int viewer__main(const char *file, const struct viewer_opts *opts)
{
	log__error("the viewer is not built yet; open %s with `probex query` meanwhile", file);
	return 1;
}
