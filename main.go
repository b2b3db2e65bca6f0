// Command petstore is the Pet Store service; see the README and the guides in docs/.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/petstore/petstore/app"
)

func main() {
	if err := app.Run(context.Background(), os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "petstore:", err)
		os.Exit(1)
	}
}
