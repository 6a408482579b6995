/** The fewest documents a demo has: its authors, pages and the articles its lists and menu point at. */
export const MIN_DEMO_DOCUMENTS = 30;
