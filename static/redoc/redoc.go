// Package redoc embeds Redoc's standalone bundle, so /docs/redoc renders the API document with
// no network access.
//
// redoc.standalone.js and its redoc.standalone.js.LICENSE.txt are copied unchanged from npm's
// redoc@2.5.4 (bundles/ of the tarball, integrity sha512-M6jWhG1qoBnH6TFmzJnstyCZ87HmOY/UzDm78mHiYihEdlV/YcS9ogOo1NlElnJMeLsyxHFe2yFc4sNjHTrABQ==;
// bundle sha256 dcaf76612bc4a3fbcc923a8966dee2f6146a5f32e5ce1b6f02dd60cbbf89500b). The 2.x line,
// not 3.x: Redoc 3 sends usage telemetry unless told not to. To update: `npm pack redoc@<version>`,
// copy both files from package/bundles/, and change the version above.
package redoc

import (
	"bytes"
	_ "embed"
	"strconv"
)

// standalone is bundles/redoc.standalone.js: Redoc and everything it needs in one script.
//
//go:embed redoc.standalone.js
var standalone []byte

// cdnLogo is the one address the bundle loads from the network: Redocly's logo in the footer of
// the menu, an image element Redoc always renders.
const cdnLogo = "https://cdn.redoc.ly/redoc/logo-mini.svg"

// Offline is the bundle with the logo's address replaced by an empty data: URL. It fails to
// load at once, without a request, and Redoc answers that by leaving the logo out.
var Offline = offline()

func offline() []byte {
	if n := bytes.Count(standalone, []byte(cdnLogo)); n != 1 {
		panic("redoc: the bundle names Redocly's logo address " + strconv.Itoa(n) + " times, not once: check what a new version loads")
	}
	return bytes.Replace(standalone, []byte(cdnLogo), []byte("data:,"), 1)
}
