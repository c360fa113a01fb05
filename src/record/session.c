/* Placeholder until the recorder lands (issue 2). */
#include "common/log.h"
#include "record/record.h"

int record__main(const struct probex_opts *opts, const struct priv_target *priv)
{
	log__error("recording is not built yet");
	return 1;
}
