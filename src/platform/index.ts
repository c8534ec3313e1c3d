// The platform domain's door: nothing of it is for other domains (docs/decisions.md "One door per
// domain"); its health-check workflow and activities are its own.
export {};
