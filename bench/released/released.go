// Package released holds the Pet and Photo of the service's published document (1.2.0) as the
// hand-written servers of `make bench` send them: one copy of the shape for both.
package released

import "time"

// Pet is the document's Pet.
type Pet struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	CategoryID  int64     `json:"categoryId"`
	Status      string    `json:"status"`
	Description string    `json:"description"`
	Tags        []string  `json:"tags"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	Photos      []Photo   `json:"photos"`
}

// Photo is the document's Photo.
type Photo struct {
	ID           int64     `json:"id"`
	URL          string    `json:"url"`
	ThumbnailURL string    `json:"thumbnailUrl"`
	Width        int64     `json:"width"`
	Height       int64     `json:"height"`
	ContentType  string    `json:"contentType"`
	CreatedAt    time.Time `json:"createdAt"`
}
