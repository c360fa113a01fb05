# Web UI: built into $(BUILD)/web, then embedded as a C array.
# Until web/package.json exists the placeholder page is embedded.
WEB_DIST := $(if $(wildcard web/package.json),$(BUILD)/web,web/placeholder)
WEB_INPUTS := $(shell find web -path web/node_modules -prune -o -type f -print 2>/dev/null)

$(BUILD)/gen/web_assets.c: $(WEB_INPUTS) scripts/embed-assets.mjs
	@mkdir -p $(@D)
	node scripts/embed-assets.mjs $(WEB_DIST) $@
