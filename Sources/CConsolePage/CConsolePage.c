#include "CConsolePage.h"

// C23's #embed copies each file in at compile time; clang records them as dependencies, so an
// edit to the page rebuilds this file. An installed binary needs no resource bundle beside it.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const unsigned char html[] = {
#embed "console.html"
};
static const unsigned char script[] = {
#embed "console.js"
};
static const unsigned char style[] = {
#embed "console.css"
};
#pragma clang diagnostic pop

const unsigned char *masthead_console_html(void) { return html; }

size_t masthead_console_html_length(void) { return sizeof html; }

const unsigned char *masthead_console_js(void) { return script; }

size_t masthead_console_js_length(void) { return sizeof script; }

const unsigned char *masthead_console_css(void) { return style; }

size_t masthead_console_css_length(void) { return sizeof style; }
