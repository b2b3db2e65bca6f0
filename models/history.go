package models

import (
	"context"
	"time"
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

// History returns every recorded status change of a pet, oldest first. A pet that never
// changed, or does not exist, has none.
func (s *PetStore) History(ctx context.Context, petID int64) ([]StatusChange, error) {
	var changes []StatusChange
	err := s.db.WithContext(ctx).Where("pet_id = ?", petID).Order("id").Find(&changes).Error
	return changes, storeError(err, "")
}
