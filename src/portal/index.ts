// The portal domain's door: nothing of it is for other domains (docs/decisions.md "One door per
// domain"); the buyer's pages and routes are its own.
export {};
