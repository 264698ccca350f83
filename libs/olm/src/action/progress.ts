/** Where an action reports what it did, one line at a time (the CLI prints them; other callers may ignore them). */
export type Progress = (line: string) => void;
