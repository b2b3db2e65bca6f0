package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/petstore/petstore/app/apptest/netfault"
	"github.com/petstore/petstore/app/apptest/testenv"
	"github.com/petstore/petstore/models"
	"gorm.io/gorm"
)

// A list reads with the request's deadline: a database that stops answering must end the read at
// that deadline, the connection must then be dropped, and a connection whose read ended in time
// must not keep the deadline for its next query.
func TestAListOnADatabaseThatStoppedAnsweringEndsAtItsDeadline(t *testing.T) {
	t.Parallel()
	schema := testenv.PostgresSchema(t)
	open := func(u string, conns int) *gorm.DB {
		db, err := models.Open(context.Background(), models.DBOptions{PostgresURL: u, Timeout: 5 * time.Second,
			MaxOpenConns: conns, MaxIdleConns: conns, ConnMaxLifetime: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { models.Close(db) })
		return db
	}
	if err := models.Migrate(context.Background(), open(schema, 4)); err != nil {
		t.Fatal(err)
	}
	u, proxy := netfault.ProxiedURL(t, schema)
	// One connection, so that every list below runs on the connection the previous one left.
	db := open(u, 1)
	store := models.NewPetStore(db)
	list := func(ctx context.Context) error {
		_, err := store.List(ctx, models.PetFilter{Status: models.PetAvailable}, models.Page{Limit: 5})
		return err
	}

	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	err := list(short)
	cancel()
	if err != nil {
		t.Fatalf("list with a deadline: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // past that deadline: the connection must not still carry it
	if err := list(context.Background()); err != nil {
		t.Fatalf("list on the same connection after an earlier list's deadline passed: %v", err)
	}

	proxy.Partition()
	ended := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		ended <- list(ctx)
	}()
	select {
	case err := <-ended:
		var e *models.Error
		if !errors.As(err, &e) || e.Code != models.EUnavailable {
			t.Fatalf("list on a silent database: %v, want an %q error", err, models.EUnavailable)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a list on a silent database did not end at its deadline")
	}

	proxy.Heal()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := list(ctx); err != nil {
		t.Fatalf("list after the database came back (the broken connection must have been dropped): %v", err)
	}
}
