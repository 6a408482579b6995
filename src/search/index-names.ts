/** Names of the publications alias and its versioned physical indices (`<alias>-v<timestamp>`). */
export interface PublicationsIndex {
  alias: string;
  /** ELASTICSEARCH_REPLICAS: the replicas a new physical index gets; undefined keeps the mapping file's. */
  replicas?: number;
  physicalPattern: string;
  newPhysicalName(now?: Date): string;
}

export function publicationsIndex(prefix: string, options: { replicas?: number } = {}): PublicationsIndex {
  const alias = `${prefix}-publications`;
  return {
    alias,
    replicas: options.replicas,
    physicalPattern: `${alias}-v*`,
    newPhysicalName(now = new Date()) {
      return `${alias}-v${now
        .toISOString()
        .replace(/[-:.TZ]/g, '')
        .toLowerCase()}`;
    },
  };
}
