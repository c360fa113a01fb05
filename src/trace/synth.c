/* Placeholder until the synthetic trace generator lands (issue 3). */
#include "common/log.h"
#include "trace/synth.h"

int synth__main(int argc, char **argv)
{
	log__error("synth is not built yet");
	return 1;
}
