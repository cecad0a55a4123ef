/**
 * English function words and very common words: the list the training recipe keeps out of the topic
 * model's bag of words (models/train/draftsmith_train/data.py STOP; keep the two the same). A word
 * in it carries no topic, so it is never listed as a topic-attended phrase on its own.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'am', 'an', 'and', 'any', 'are', 'as',
  'at', 'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by', 'can',
  'could', 'did', 'do', 'does', 'doing', 'down', 'during', 'each', 'few', 'for', 'from', 'further',
  'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'herself', 'him', 'himself', 'his',
  'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'me', 'more', 'most', 'my',
  'myself', 'no', 'nor', 'not', 'now', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'our',
  'ours', 'ourselves', 'out', 'over', 'own', 'same', 'she', 'should', 'so', 'some', 'such', 'than',
  'that', 'the', 'their', 'theirs', 'them', 'themselves', 'then', 'there', 'these', 'they', 'this',
  'those', 'through', 'to', 'too', 'under', 'until', 'up', 'very', 'was', 'we', 'were', 'what',
  'when', 'where', 'which', 'while', 'who', 'whom', 'why', 'will', 'with', 'would', 'you', 'your',
  'yours', 'yourself', 'yourselves', 'also', 'said', 'one', 'two', 'new', 'may', 'like', 'get',
  'use', 'used', 'using', 'make', 'many', 'much', 'well', 'even', 'back', 'still', 'way', 'first',
  'last', 'year', 'years', 'time', 'says', 'told',
]);

export const isStopword = (word: string): boolean => STOPWORDS.has(word.toLowerCase());
