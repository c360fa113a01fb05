#include <string.h>

#include "server/assets.h"

const struct embedded_asset *assets__find(const char *path)
{
	for (unsigned int i = 0; i < embedded_assets_count; i++)
		if (strcmp(embedded_assets[i].path, path) == 0)
			return &embedded_assets[i];
	return NULL;
}
