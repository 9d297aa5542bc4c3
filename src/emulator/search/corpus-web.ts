import { webDocument, type CorpusDocument } from './corpus-types';

/** Web pages of the built-in corpus: reference pages, company sites, agencies and news outlets. */
export const WEB_DOCUMENTS: readonly CorpusDocument[] = [
  webDocument({
    url: 'https://en.wikipedia.org/wiki/Large_language_model',
    title: 'Large language model - Wikipedia',
    description: 'Encyclopedia article on large language models.',
    publication_date: '2025-01-14',
    keywords: ['llm', 'ai', 'artificial intelligence', 'transformer'],
    content:
      'A large language model (LLM) is a language model trained with self-supervised learning on vast amounts of text. The largest and most capable LLMs are generative pretrained transformers. Modern models can be fine-tuned for specific tasks or guided by prompt engineering, and retrieval-augmented generation grounds their answers in documents fetched at query time. Known limitations include hallucination, sensitivity to prompt wording and the cost of inference at scale.',
  }),
  webDocument({
    url: 'https://www.acme-robotics.com/about',
    title: 'About Acme Robotics | Warehouse automation',
    description: 'Company profile of Acme Robotics.',
    publication_date: '2024-11-02',
    keywords: ['company profile', 'headquarters', 'founders', 'employees'],
    content:
      'Acme Robotics builds autonomous mobile robots for warehouse picking and pallet transport. Founded in 2016 in Pittsburgh by Dana Ortiz and Sam Whitfield, the company employs about 1,400 people and serves more than 300 distribution centres in North America and Europe. Its flagship robot, the Acme Picker 3, works alongside staff and integrates with common warehouse management systems.',
  }),
  webDocument({
    url: 'https://www.acme-robotics.com/blog/picker-4-launch',
    title: 'Introducing Acme Picker 4',
    publication_date: '2025-03-18',
    keywords: ['product launch', 'robot'],
    content:
      'Acme Robotics today introduced the Acme Picker 4, a warehouse robot with a new vision system that handles 40 percent more item types than its predecessor. Pilot customers reported picking rates of 450 units per hour. General availability is planned for the third quarter, with pricing by subscription per robot.',
  }),
  webDocument({
    url: 'https://www.globex.com/investors',
    title: 'Globex Corporation - Investor Relations',
    publication_date: '2025-02-20',
    keywords: ['investors', 'annual report', 'revenue', 'competitor'],
    content:
      'Globex Corporation is a diversified industrial automation group with segments in logistics robotics, factory control software and energy storage. Full-year revenue reached 8.2 billion dollars, up 6 percent, with logistics robotics the fastest-growing segment. Globex competes with Acme Robotics and other automation vendors in warehouse robotics.',
  }),
  webDocument({
    url: 'https://www.reuters.com/technology/chipmakers-data-centre-revenue-2025-02-27',
    title: 'Chipmakers post record data-centre revenue as AI demand holds',
    news: true,
    publication_date: '2025-02-27',
    keywords: ['semiconductors', 'ai', 'earnings', 'gpu'],
    content:
      'Leading chipmakers reported record data-centre revenue for the quarter as cloud providers kept buying accelerators for artificial intelligence workloads. Analysts said supply of advanced packaging capacity remained the main constraint, while some investors questioned how long capital spending on AI infrastructure could grow at this pace.',
  }),
  webDocument({
    url: 'https://techcrunch.com/2024/09/10/battery-recycling-startup-series-b',
    title: 'Battery recycling startup raises $120M Series B',
    news: true,
    publication_date: '2024-09-10',
    keywords: ['funding', 'startup', 'lithium', 'venture capital'],
    content:
      'A battery recycling startup that recovers lithium, nickel and cobalt from spent electric vehicle packs has raised 120 million dollars in a Series B round. The company plans a second plant in Nevada and says its hydrometallurgical process recovers more than 95 percent of critical minerals.',
  }),
  webDocument({
    url: 'https://www.nature.com/articles/d41586-024-00001-crispr-therapies',
    title: 'CRISPR therapies move from rare diseases toward common conditions',
    news: true,
    publication_date: '2024-12-05',
    keywords: ['gene editing', 'base editing', 'sickle cell'],
    content:
      'After the first approval of a CRISPR-based therapy for sickle cell disease, developers are testing base editing and prime editing in common conditions such as high cholesterol. Researchers caution that delivery to tissues other than blood and liver, and long-term safety follow-up, remain open problems.',
  }),
  webDocument({
    url: 'https://www.who.int/news-room/fact-sheets/detail/tuberculosis',
    title: 'Tuberculosis - Fact sheet',
    publication_date: '2024-10-29',
    keywords: ['tb', 'global health', 'infectious disease'],
    content:
      'Tuberculosis remains one of the leading infectious killers worldwide. An estimated 10.8 million people fell ill with TB in 2023. TB is curable and preventable; about 85 percent of people who develop the disease can be treated successfully with a six-month drug regimen. Multidrug-resistant TB remains a public health crisis.',
  }),
  webDocument({
    url: 'https://www.nih.gov/news-events/mrna-vaccine-research',
    title: 'mRNA vaccine research at NIH',
    publication_date: '2024-06-12',
    keywords: ['vaccines', 'immunology', 'medical'],
    content:
      'Messenger RNA vaccines instruct cells to produce a protein that triggers an immune response. Beyond infectious diseases, NIH-funded teams are studying mRNA vaccines for cancers such as melanoma and pancreatic cancer, and for universal influenza protection. Lipid nanoparticle delivery and thermostability are active research areas.',
  }),
  webDocument({
    url: 'https://www.transportation.gov/rural/ev/toolkit',
    title: 'Electric vehicle charging toolkit',
    publication_date: '2024-04-22',
    keywords: ['ev', 'charging stations', 'infrastructure', 'transportation'],
    content:
      'The federal EV charging toolkit helps communities plan and fund electric vehicle charging. It covers Level 2 and DC fast charging, siting along designated alternative fuel corridors, grant programmes for rural areas, and requirements for uptime and payment interoperability.',
  }),
  webDocument({
    url: 'https://www.iea.org/reports/global-ev-outlook-2024',
    title: 'Global EV Outlook 2024',
    publication_date: '2024-04-23',
    keywords: ['electric vehicles', 'automotive', 'sales', 'batteries', 'climate'],
    content:
      'Electric car sales neared 14 million in 2023, about 18 percent of all cars sold. China accounted for around 60 percent of new registrations. Falling battery prices and new models are expected to keep demand growing, although growth in some markets depends on incentives and charging build-out.',
  }),
  webDocument({
    url: 'https://www.ecb.europa.eu/press/pr/date/2025/html/monetary-policy-decisions.en.html',
    title: 'Monetary policy decisions',
    publication_date: '2025-03-06',
    keywords: ['interest rates', 'inflation', 'euro area', 'central bank'],
    content:
      'The Governing Council decided to lower the three key ECB interest rates by 25 basis points. Disinflation is well on track: inflation has continued to develop broadly as staff expected, and staff projections see headline inflation averaging 2.3 percent in 2025.',
  }),
  webDocument({
    url: 'https://developer.mozilla.org/en-US/docs/Web/API/Server-sent_events',
    title: 'Server-sent events - Web APIs | MDN',
    publication_date: '2024-07-25',
    keywords: ['sse', 'streaming', 'http', 'event-stream'],
    content:
      'With server-sent events, a server can send new data to a web page at any time by pushing messages. The stream uses the text/event-stream content type; each message is a block of lines such as data: followed by a blank line. Unlike WebSockets, server-sent events are one-way, from server to client.',
  }),
  webDocument({
    url: 'https://docs.temporal.io/workflows',
    title: 'Temporal Workflow | Temporal Platform Documentation',
    publication_date: '2025-01-30',
    keywords: ['durable execution', 'orchestration', 'retries'],
    content:
      'A Temporal Workflow defines the overall flow of an application as code. Workflow executions are durable: their state is persisted as an event history, so a workflow resumes after worker crashes exactly where it left off. Activities perform side effects and are retried according to a retry policy.',
  }),
  webDocument({
    url: 'https://www.gov.uk/government/collections/online-safety-act',
    title: 'Online Safety Act: collection',
    publication_date: '2024-12-16',
    keywords: ['regulation', 'legal', 'compliance', 'uk'],
    content:
      'The Online Safety Act 2023 places duties on online platforms to protect users from illegal content and children from harmful content. Ofcom is the regulator and publishes codes of practice; providers must carry out risk assessments and can face fines of up to 10 percent of qualifying worldwide revenue.',
  }),
  webDocument({
    url: 'https://www.epa.gov/ghgemissions/inventory-us-greenhouse-gas-emissions-and-sinks',
    title: 'Inventory of U.S. Greenhouse Gas Emissions and Sinks',
    publication_date: '2024-04-11',
    keywords: ['climate', 'environment', 'carbon', 'emissions'],
    content:
      'The inventory tracks total annual U.S. emissions by source, economic sector and greenhouse gas. In 2022, U.S. greenhouse gas emissions totalled 6,343 million metric tons of CO2 equivalent. Transportation was the largest source, followed by electric power and industry.',
  }),
  webDocument({
    url: 'https://www.bbc.co.uk/news/science-environment-heatwave-records',
    title: 'Record heat across Europe linked to climate change, scientists say',
    news: true,
    publication_date: '2024-07-30',
    keywords: ['climate', 'heatwave', 'weather'],
    content:
      'Scientists said the heatwave that brought record temperatures to southern Europe would have been virtually impossible without human-caused climate change. Hospitals reported a rise in heat-related admissions, and several countries issued red alerts for wildfires.',
  }),
];
