package app

import (
	"flag"
	"fmt"
)

var versionCommand = command{
	summary: "print the version",
	flags: func(fs *flag.FlagSet, e *env) func() error {
		return func() error {
			if err := noArgs(fs); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, "petstore", buildVersion())
			return nil
		}
	},
}
