/** Unix seconds of a database timestamp (catalogue resources; webhook resources use milliseconds). */
export const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
