package models

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// StatusChange records one event of the lifecycle: who or what did it, when, and the statuses
// of the pet (and of its order, for order actions) before and after. Approving an order leaves
// its pet pending, so PetFrom and PetTo may be equal; every other row is a real pet change.
type StatusChange struct {
	ID    int64 `gorm:"primaryKey;index:idx_status_changes_pet_id_id,priority:2;index:idx_status_changes_order_id_id,priority:2"`
	PetID int64 `gorm:"not null;index:idx_status_changes_pet_id_id,priority:1"`
	Pet   *Pet  `gorm:"constraint:OnUpdate:CASCADE,OnDelete:CASCADE"`
	// OrderID is the order the action was on; nil for a status set by hand.
	OrderID   *int64      `gorm:"index:idx_status_changes_order_id_id,priority:1"`
	Order     *Order      `gorm:"constraint:OnUpdate:CASCADE,OnDelete:CASCADE"`
	Action    Action      `gorm:"size:16;not null"`
	PetFrom   PetStatus   `gorm:"size:16;not null"`
	PetTo     PetStatus   `gorm:"size:16;not null"`
	OrderFrom OrderStatus `gorm:"size:16;not null;default:''"` // empty for a new order or a hand change
	OrderTo   OrderStatus `gorm:"size:16;not null;default:''"`
	// Actor is who or what acted: "staff:<username>", "api-key:<id>", "seed", ...
	Actor     string `gorm:"size:200;not null"`
	CreatedAt time.Time
}

// SetStatus sets a pet's status by hand, as staff do, in one transaction that locks the pet.
// Setting the status the pet already has changes and records nothing. A pet held by an order
// (live, or delivered) is refused with a conflict (see setByHand).
func (s *PetStore) SetStatus(ctx context.Context, id int64, to PetStatus, actor string) (*Pet, error) {
	if _, err := ParsePetStatus("status", string(to)); err != nil {
		return nil, err
	}
	var pet *Pet
	err := s.db.WithContext(WithActor(ctx, actor)).Transaction(func(tx *gorm.DB) error {
		p, err := lockPet(tx, id)
		if err != nil {
			return err
		}
		pet = p
		if p.Status == to {
			return nil
		}
		var holders []Order
		err = tx.Where("pet_id = ? AND status IN ?", id, ordersThatHoldAPet).Order("id DESC").Limit(1).Find(&holders).Error
		if err != nil {
			return err
		}
		var holder *Order
		if len(holders) > 0 {
			holder = &holders[0]
		}
		change, err := setByHand(p, to, holder, actor, tx.NowFunc())
		if err != nil {
			return err
		}
		return record(tx, p, &change)
	})
	if err != nil {
		return nil, storeError(err, "")
	}
	return pet, nil
}

// History returns every recorded status change of a pet, oldest first. A pet that never
// changed, or does not exist, has none.
func (s *PetStore) History(ctx context.Context, petID int64) ([]StatusChange, error) {
	var changes []StatusChange
	err := s.db.WithContext(ctx).Where("pet_id = ?", petID).Order("id").Find(&changes).Error
	return changes, storeError(err, "")
}
