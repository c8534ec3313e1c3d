// The project's money range (docs/decisions.md): integer minor units from 0 to 2^31 - 1, what a
// GraphQL Int and a PostgreSQL integer column hold.
export const MAX_MONEY = 2_147_483_647;

export const isMoney = (value: number) => Number.isInteger(value) && value >= 0 && value <= MAX_MONEY;
