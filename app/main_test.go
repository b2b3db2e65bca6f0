package app_test

import (
	"os"
	"testing"

	"github.com/petstore/petstore/app/apptest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	apptest.RemoveBinary()
	os.Exit(code)
}
