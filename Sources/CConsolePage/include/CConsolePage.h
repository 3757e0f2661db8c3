// The support console's page, console.html, console.js and console.css beside this target's C
// file, compiled into the binary. Each function pair gives one file's bytes (UTF-8, not
// NUL-terminated) and how many there are.
#include <stddef.h>

/// The page's HTML.
const unsigned char *masthead_console_html(void);
size_t masthead_console_html_length(void);

/// The page's script.
const unsigned char *masthead_console_js(void);
size_t masthead_console_js_length(void);

/// The page's style sheet.
const unsigned char *masthead_console_css(void);
size_t masthead_console_css_length(void);
