package version

import (
	"regexp"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLine_NamesTheVersionGoAndPlatform(t *testing.T) {
	assert.Regexp(t, `^paygate \S+ \(`+regexp.QuoteMeta(runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)+`\)$`, Line("paygate"))
}

func TestString_TheReleaseVersionComesFirst(t *testing.T) {
	defer func(s string) { stamped = s }(stamped)
	stamped = "v1.2.3"
	assert.Equal(t, "v1.2.3", String())
	assert.Equal(t, "paygate-sandbox v1.2.3 ("+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+")", Line("paygate-sandbox"))
}
