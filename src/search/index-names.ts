/** Names of the publications alias and its versioned physical indices (`<alias>-v<timestamp>`). */
export interface PublicationsIndex {
  alias: string;
  physicalPattern: string;
  newPhysicalName(now?: Date): string;
}

export function publicationsIndex(prefix: string): PublicationsIndex {
  const alias = `${prefix}-publications`;
  return {
    alias,
    physicalPattern: `${alias}-v*`,
    newPhysicalName(now = new Date()) {
      return `${alias}-v${now
        .toISOString()
        .replace(/[-:.TZ]/g, '')
        .toLowerCase()}`;
    },
  };
}
