/** Unix seconds of a database timestamp (catalogue resources; webhook resources use milliseconds). */
export const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
/** unixSeconds of an optional time (a time not set yet is null in answers and events). */
export const unixSecondsOrNull = (date: Date | null) => (date ? unixSeconds(date) : null);

/** The injectable clock: services take one (tests pass a fixed or shifted time), callers default to the system's. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
